"""Compose and drive a generation run: options checked, folder opened, budget, each domain's
loop of draw → words → checks → repair → accept, operate scenarios, then the summary written.

Modules, in run order: ``preflight``, ``pipeline`` (composes the run), ``run_config``,
``run_key``, ``run_folder``, ``run_chain``, ``run_resume``, ``policy``, ``budget``, ``stages``,
``domain_run``, ``operate_stage``."""
