import { escapeHtml } from './escape-html.js';

/** Wraps already-escaped HTML content in a minimal, inline-styled document with an escaped title. */
export function htmlLayout(title: string, contentHtml: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; color: #1f2933; max-width: 560px; margin: 2rem auto; padding: 0 1rem; line-height: 1.5">
${contentHtml}
</body>
</html>
`;
}
