/** A booking's v1 `title`: `<service title> with <provider displayName>` (CONTRACT part 5). */
export function v1BookingTitle(serviceTitle: string, providerName: string): string {
  return `${serviceTitle} with ${providerName}`;
}
