/** The API reference page: Swagger UI (served from this service) rendering /openapi.json. */
import './api-reference.css';

declare const SwaggerUIBundle: (options: Record<string, unknown>) => unknown;

const root = document.getElementById('reference')!;

SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  // Deep links put an anchor inside each operation's toggle button (nested interactive controls): left off.
  deepLinking: false,
  // The console's key is never handed to the viewer: "Try it out" asks for one through its own Authorize dialog.
  tryItOutEnabled: false,
  validatorUrl: null,
  // A light highlighting theme whose colours keep AA contrast (the default, agate, does not).
  syntaxHighlight: { activated: true, theme: 'idea' },
});

/**
 * Fills the accessible names and keyboard access Swagger UI leaves out (its server picker, parameter and example selects
 * sit in empty labels, the dialog's close button has no text, example blocks scroll without being focusable). Runs on
 * every change of the viewer's DOM, since it renders operations and dialogs on demand.
 */
function repairAccessibility(): void {
  root.querySelector('select#servers:not([aria-label])')?.setAttribute('aria-label', 'Server');
  for (const select of root.querySelectorAll('tr[data-param-name] select:not([aria-label])')) {
    select.setAttribute('aria-label', `Parameter ${select.closest('tr')!.getAttribute('data-param-name')}`);
  }
  // A response with several examples (one per error code) gets an unlabelled example picker.
  for (const select of root.querySelectorAll('select.examples-select-element:not([aria-label])')) {
    const code = select.closest('tr[data-code]')?.getAttribute('data-code');
    select.setAttribute('aria-label', code ? `Examples of the ${code} response` : 'Examples');
  }
  for (const close of root.querySelectorAll('button.close-modal:not([aria-label])'))
    close.setAttribute('aria-label', 'Close');
  // The visible text must be part of the accessible name (WCAG 2.5.3); Swagger names it "Apply credentials" only.
  for (const apply of root.querySelectorAll('button.modal-btn.authorize[aria-label="Apply credentials"]'))
    apply.setAttribute('aria-label', 'Authorize: apply credentials');
  for (const pre of root.querySelectorAll('.highlight-code pre:not([tabindex])')) {
    pre.setAttribute('tabindex', '0');
    pre.setAttribute('aria-label', 'Example');
  }
}
new MutationObserver(repairAccessibility).observe(root, { childList: true, subtree: true });
