package htmlreport

import "html/template"

// Table is a table whose rows a reader sorts by clicking a column's
// header.
type Table struct {
	// Caption, if set, is shown above the table.
	Caption string
	Columns []Column
	// Rows hold a cell per column.
	Rows [][]Cell
}

// Column is a table's column.
type Column struct {
	Name string
	// Numeric right-aligns the column (its cells still sort by value
	// whenever they all read as numbers).
	Numeric bool
}

// Cell is one cell of a table.
type Cell struct {
	// HTML is the cell's content (see [Inline]).
	HTML template.HTML
	// Sort, when set, is what the cell sorts by instead of its text.
	Sort string
	// Class is the cell's CSS class: "num", "bad", "good", "cells" (a
	// cell of small pictures), space-separated.
	Class string
}

// TextCell is a cell of plain text.
func TextCell(text string) Cell {
	return Cell{HTML: template.HTML(template.HTMLEscapeString(text))}
}

// AddRow appends a row; cells of a numeric column get the class "num".
func (t *Table) AddRow(cells ...Cell) {
	for j := range cells {
		if j < len(t.Columns) && t.Columns[j].Numeric {
			cells[j].Class = joinClass(cells[j].Class, "num")
		}
	}
	t.Rows = append(t.Rows, cells)
}

func joinClass(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}
