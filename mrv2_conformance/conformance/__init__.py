"""The MRV2 index-mapping conformance properties, one module per contract family."""
