"""MCP servers, one per domain (iot, fmsr, tsfm, wo), launchable the ways upstream launches its own.

Each of ``generator/mcp/{iot,fmsr,tsfm,wo}.py`` runs as a console script
(``scenariogen-iot-mcp``), as a module (``python -m generator.mcp.iot``) or by path
(``python /path/to/generator/mcp/iot.py``). Store settings come from the environment and
from a ``.env`` file (:mod:`generator.envfile`), since an MCP client passes a minimal
environment to the servers it starts.
"""
