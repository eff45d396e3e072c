"""The clone's pytest configuration is the installed plugin's
(mrv2_conformance/plugin.py): naming it here keeps it loaded when entry-point plugins
are disabled (PYTEST_DISABLE_PLUGIN_AUTOLOAD)."""

pytest_plugins = ["mrv2_conformance.plugin"]
