"""What readers are served: `recall` and `context` (with their quick path's shared answers), the cosines they rank
by, the notes as the archive and its search, `index`, `why`, `status` (and why the last run was not `ok`), and one
memory file shown whole."""
