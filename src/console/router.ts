import type { Page } from './page.js';

/** A page matched to a path, with its parameters. */
export interface RouteMatch {
  page: Page;
  params: Record<string, string>;
}

/** Finds the page of a path (`/console/bookings/bk_1` matches `/console/bookings/:id`). */
export function matchPage(pages: Page[], path: string): RouteMatch | undefined {
  const parts = path.replace(/\/+$/, '').split('/');
  for (const page of pages) {
    const pattern = page.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const p = pattern[i]!;
      const v = parts[i]!;
      if (p.startsWith(':')) {
        try {
          params[p.slice(1)] = decodeURIComponent(v);
        } catch {
          ok = false;
        }
        ok &&= v.length > 0;
      } else ok = p === v;
    }
    if (ok) return { page, params };
  }
  return undefined;
}
