"""Reading the memory back, pure: what a question asks (`asking`), words that mean one thing (`concepts`), recall's
ranking (`recall`: BM25 fused with embeddings' cosines) and the context block (`ranking`)."""
