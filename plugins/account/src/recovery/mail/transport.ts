/** One e-mail as the account plugin sends it: both a plain-text and an HTML body. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where the plugin's e-mails go: SMTP (`smtpTransport`), the development outbox (`outbox`), or the app's own. */
export interface MailTransport {
  /** Hands the message over; rejects when it could not be (the plugin logs that, the caller never learns it). */
  send(message: MailMessage): Promise<void>;
  close?(): Promise<void>;
}

/** One short text message (SMS or a chat channel) for a phone recovery factor. */
export interface TextMessage {
  to: string;
  text: string;
}

/** Where the plugin's text messages go: a gateway of the app's, or the development outbox. */
export interface MessageSender {
  send(message: TextMessage): Promise<void>;
  close?(): Promise<void>;
}
