/** What the console keeps for this tab: the API key and the organization a platform key acts for. */
export interface Session {
  key: string;
  organizationId?: string;
}

const STORAGE_KEY = 'scheduling-console.session';

/**
 * The session lives in this tab's sessionStorage only: never in a URL, a cookie or localStorage, and it is gone
 * when the tab closes.
 */
export function loadSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return undefined;
    const s = JSON.parse(raw) as Session;
    return typeof s.key === 'string' && s.key ? s : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the session for this tab. */
export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

/** Forgets the session (sign out). */
export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
