"""A memory file as text and on disk: parsed and rendered byte for byte (`format`, with `frontmatter` and `lines`),
YAML held to a budget (`safe_yaml`), and the store, the memory model's only I/O (`store`, with `aside`)."""
