"""LLM backends through langchain: spec parsing, backend factories, the client, a fake.

Import from the submodules (``generator.llm.spec``, ``.client``, ``.fake``, ``.backends``)
so that code needing only the spec does not load langchain's model packages.
"""
