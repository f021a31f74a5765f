"""The MCP door: the memory served to assistants over the Model Context Protocol (docs/spec.md §9).

Its tools, resources, the text an assistant reads and the progress it is sent; each tool calls one
operation, as a command of the command line does. Nothing here imports the command line."""
