"""Storage: the contract every backend implements (``contract``), the records that cross it
(``records``), and the backends, one package each (``sqlite``)."""
