"""The Catalog tab: GPU table with filters, detail pane, comparison, chart, user prices and CSV export."""
