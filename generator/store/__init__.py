"""The CouchDB-protocol store: HTTP client, bundled server management, query layer."""
