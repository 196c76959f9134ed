/** A rendered e-mail: subject, plain-text body and HTML body. */
export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}
