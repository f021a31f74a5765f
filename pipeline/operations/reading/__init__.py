"""The reading loop: the person's assistant handed a batch of notes or a review under a lease (`notes_to_read`,
`propose_memories`), its answer kept; and evidence from a file through the rules (`apply`)."""
