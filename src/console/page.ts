import type { z } from 'zod';
import type { CallerIdentity } from '../contract/schemas/caller.js';
import type { ApiClient } from './api-client.js';

/** Who signed in, as `GET /api/v2/caller` answers. */
export type Caller = z.infer<typeof CallerIdentity>;

/** What a page gets when it renders. */
export interface PageContext {
  api: ApiClient;
  caller: Caller;
  /** Path parameters of the page's pattern (`:id` → `params.id`). */
  params: Record<string, string>;
  /** The URL's query: the page's filters, as `setQuery` last set them. */
  query: URLSearchParams;
  /** Aborted when the reader leaves the page: stop timers and streams with it. */
  signal: AbortSignal;
  /** Goes to another console path (`/console/bookings/bk_1`) without reloading. */
  navigate(path: string): void;
  /** Sets the URL's query for this page (filters) and `query` without re-rendering it. */
  setQuery(query: URLSearchParams): void;
}

/** A console page: a path pattern under /console and how to render it. */
export interface Page {
  /** Pattern such as `/console/bookings/:id`. */
  path: string;
  title: string;
  /** Label in the navigation; pages without one are reached by links. */
  nav?: string;
  /** Shown only to platform keys (the API answers 403 to others). */
  platformOnly?: boolean;
  /** Shown only once an organization is chosen (organization-scoped data). */
  needsOrganization?: boolean;
  render(ctx: PageContext): Promise<Node>;
}
