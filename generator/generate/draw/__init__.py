"""Draw task seeds: task families pick parameters over the fleet and run the tools that compute
the answer, the gates keep or drop each draw; slots, lanes and multi-agent streams order them.

Modules, in run order: ``families``, ``family_helpers``, ``memo``, ``asof``, ``difficulty``,
``lanes``, ``ahead``, ``composed``, ``draw_order``, ``negatives``, ``operate_run``;
``difficulty_draws`` (outside a run) fits the difficulty cut points."""
