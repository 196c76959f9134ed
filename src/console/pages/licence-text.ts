/** A licence as one line: `psy US-NY active, expires 2026-03-02`. */
export function licenceText(l: {
  licenseTypeCode: string;
  regionCode: string;
  status: string;
  expiresAt?: string;
}): string {
  return `${l.licenseTypeCode} ${l.regionCode} ${l.status}${l.expiresAt ? `, expires ${l.expiresAt.slice(0, 10)}` : ''}`;
}
