/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The show commands' tables: a header row, then one row per thing, each
 * column as wide as its widest cell and two spaces apart, so a person
 * reads them and a script splits them on blanks. An empty table is one
 * line, "<what>: none", never a bare header.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmd.h"

void pmd_table_init(struct pmd_table *t, const char *const *head, unsigned int ncols)
{
	memset(t, 0, sizeof(*t));
	t->head = head;
	t->ncols = ncols < PMD_TABLE_MAX_COLS ? ncols : PMD_TABLE_MAX_COLS;
}

static char **cell_at(struct pmd_table *t, unsigned int row, unsigned int col)
{
	return &t->cells[row * t->ncols + col];
}

void pmd_table_row(struct pmd_table *t)
{
	if (t->nrows == t->cap) {
		unsigned int cap = t->cap != 0 ? t->cap * 2 : 16;
		char **c = realloc(t->cells, sizeof(*c) * cap * t->ncols);

		if (c == NULL) {
			t->col = t->ncols; /* the row is dropped: its cells go nowhere */
			return;
		}
		t->cells = c;
		t->cap = cap;
	}
	memset(cell_at(t, t->nrows, 0), 0, sizeof(char *) * t->ncols);
	t->nrows++;
	t->col = 0;
}

void pmd_table_cell(struct pmd_table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (t->nrows == 0 || t->col >= t->ncols)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	*cell_at(t, t->nrows - 1, t->col++) = s;
}

static const char *cell_text(struct pmd_table *t, unsigned int row, unsigned int col)
{
	const char *s = *cell_at(t, row, col);

	return s != NULL && s[0] != '\0' ? s : "-";
}

/* One line: every column padded but the last (no trailing blanks). */
static void print_line(struct pmd_table *t, const size_t *width, int row)
{
	for (unsigned int c = 0; c < t->ncols; c++) {
		const char *s = row < 0 ? t->head[c] : cell_text(t, (unsigned int)row, c);

		if (c + 1 < t->ncols)
			printf("%-*s  ", (int)width[c], s);
		else
			printf("%s\n", s);
	}
}

void pmd_table_print(struct pmd_table *t, const char *what)
{
	size_t width[PMD_TABLE_MAX_COLS] = { 0 };

	if (t->nrows == 0) {
		printf("%s: none\n", what);
	} else {
		for (unsigned int c = 0; c < t->ncols; c++) {
			width[c] = strlen(t->head[c]);
			for (unsigned int r = 0; r < t->nrows; r++) {
				size_t l = strlen(cell_text(t, r, c));
				width[c] = l > width[c] ? l : width[c];
			}
		}
		print_line(t, width, -1);
		for (unsigned int r = 0; r < t->nrows; r++)
			print_line(t, width, (int)r);
	}
	for (unsigned int i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
