// Text from agents made safe for a Markdown table cell: pipes, backticks, angle brackets and newlines neutralised.

/** The text, safe inside a table cell or a list item. */
export const cell = (text: string) =>
  text.replace(
    /[|`\r\n<>]/g,
    (c) => ({ '|': '\\|', '`': "'", '\r': ' ', '\n': ' ', '<': '&lt;', '>': '&gt;' })[c] ?? c,
  );
