"""Every ``generate`` option checked before a run folder is made or the store is asked.

A bad ``--llm``, ``--retriever`` or ``--against`` used to surface only once the run had
made its folder (a folder holding nothing but a manifest, named in a "resume it" line);
a ``--resume`` of a run that never existed started a new run. Names come first (they need
no file), then the files the options name.
"""

from __future__ import annotations

from pathlib import Path

from generator.generate.run.run_config import GenerateConfig


def check_options(config: GenerateConfig, resume: str | None) -> None:
    """Check ``config`` (and ``--resume``) as far as possible without the store.

    Raises:
        UserError: the first bad option, in one line naming it and the fix.
    """
    from generator.assetdef import load_asset_class
    from generator.generate.checks.validate import load_scenario_file
    from generator.generate.run.run_folder import check_run_names, require_run
    from generator.llm.spec import parse_llm
    from generator.profile.build import check_retriever

    check_run_names(config.run_id, resume)
    if resume is not None:
        require_run(config.out_dir, resume)
    load_asset_class(config.asset_class)
    spec = parse_llm(config.llm, base_url=config.base_url)
    if spec.fake_script is not None:
        from generator.llm.fake import ScriptedChatModel

        ScriptedChatModel.from_file(spec.fake_script)
    check_retriever(config.retriever)
    if config.against is not None:
        load_scenario_file(Path(config.against))
