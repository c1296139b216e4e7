"""Word the seeds: a class's template grammar or an LLM turns a seed into a request's text,
people's phrasings of dates and sensors standing for the seed's mentions; the run's summary
measures how varied the words are.

Modules, in run order: ``template_file``, ``verbalise_template``, ``dates_natural``,
``surface_forms``, ``verbalise_llm``, ``language_stats``."""
