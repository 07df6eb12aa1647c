// The function budget (docs/architecture.md, "Function budget"): it replaced a 300-line cap per file,
// which had pushed size into long functions. DEBT lists the functions that were over budget when the
// budget came, by file. The list only shrinks: lint fails for a new function over budget, and for an
// entry that is within budget now (remove it then).
export const BUDGET = { maxLines: 80, maxParams: 5 };

// Paid off in full (the sixth session split the last four planning functions by case).
export const DEBT = {};
