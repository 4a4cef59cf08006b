"""Browser layer: the only Python that imports js, pyodide or pyscript."""
