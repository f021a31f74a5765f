"""A model reads the notes: the LLM extractor (`llm`) and its client, batches, replies, retries and costs; the
provider's batch endpoint (`batch_api`); the person's assistant as the reader (`agent`, `sampling`); review batches."""
