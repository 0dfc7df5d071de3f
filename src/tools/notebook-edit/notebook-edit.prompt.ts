/** The description the model reads for NotebookEdit. */
export const notebookEditPrompt = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb file).

Usage:
- notebook_path is the path of the notebook; read it with Read first.
- cell_id is the id Read shows for a cell (cells without an id are shown as "cell-N", N counting from 0).
- edit_mode "replace" (the default) sets the cell's source to new_source; "insert" adds a new cell after cell_id (or at the top when cell_id is omitted) and needs cell_type; "delete" removes the cell.
- cell_type is "code" or "markdown"; when replacing, it may change the cell's type.
- Replacing a code cell clears its outputs and execution count, since they no longer match the source.
- Every other cell and the notebook's metadata are left exactly as they were.`;
