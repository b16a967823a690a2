"""The Plan tab: quick mode, the five-question wizard with a live memory chart, results with charts, saved
plans (reopen, duplicate, edit, compare, delete with undo) and configuration-sheet exports."""
