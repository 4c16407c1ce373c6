import pug from 'pug';
import { ConfigurationError } from '@crudsmith/core';

/** The e-mails the plugin sends. */
export type MailKind = 'verify' | 'reset' | 'change' | 'changed' | 'taken';

/** One e-mail's templates, each pug source: the subject and the text body are plain text (`| line`), the HTML body markup. */
export interface MailTemplate {
  subject: string;
  text: string;
  html: string;
}

/** Overrides of the plugin's templates: any kind, any part; text messages (phone factor) by kind. */
export interface MailTemplates {
  mail?: Partial<Record<MailKind, Partial<MailTemplate>>>;
  textMessage?: Partial<Record<'verify' | 'reset', string>>;
}

/**
 * What every template may use: `appName`, `username`, `link` (the page to open, with the
 * token), `expiresIn` (such as `24 hours`), `address` (the address the mail goes to) and,
 * for the address change, `newAddress`. Text templates print values raw with `!{...}`;
 * HTML ones escape them with `#{...}` or `=`.
 */
export type MailLocals = Record<'appName' | 'username' | 'link' | 'expiresIn' | 'address' | 'newAddress', string>;

const LINK_HTML = 'p: a(href=link)= link';

const DEFAULTS: Record<MailKind, MailTemplate> = {
  verify: {
    subject: '| Confirm your e-mail address for !{appName}',
    text: '| Hello !{username},\n|\n| Confirm your e-mail address by opening this link:\n| !{link}\n|\n| It expires in !{expiresIn}. If you did not ask for it, ignore this message.\n',
    html: `p Hello #{username},\np Confirm your e-mail address by opening this link:\n${LINK_HTML}\np It expires in #{expiresIn}. If you did not ask for it, ignore this message.\n`,
  },
  reset: {
    subject: '| Reset your !{appName} password',
    text: '| Hello !{username},\n|\n| Choose a new password by opening this link:\n| !{link}\n|\n| It expires in !{expiresIn} and works once. If you did not ask for it, ignore this message: your password stays as it is.\n',
    html: `p Hello #{username},\np Choose a new password by opening this link:\n${LINK_HTML}\np It expires in #{expiresIn} and works once. If you did not ask for it, ignore this message: your password stays as it is.\n`,
  },
  change: {
    subject: '| Confirm your new e-mail address for !{appName}',
    text: '| Hello !{username},\n|\n| Confirm !{address} as your new address by opening this link:\n| !{link}\n|\n| It expires in !{expiresIn}. If you did not ask for it, ignore this message.\n',
    html: `p Hello #{username},\np Confirm #{address} as your new address by opening this link:\n${LINK_HTML}\np It expires in #{expiresIn}. If you did not ask for it, ignore this message.\n`,
  },
  changed: {
    subject: '| Your !{appName} e-mail address was changed',
    text: '| Hello !{username},\n|\n| The e-mail address of your account is now !{newAddress}; this address (!{address}) no longer signs in.\n| If you did not make this change, reset your password and contact us.\n',
    html: 'p Hello #{username},\np The e-mail address of your account is now #{newAddress}; this address (#{address}) no longer signs in.\np If you did not make this change, reset your password and contact us.\n',
  },
  taken: {
    subject: '| Someone tried to use your e-mail address at !{appName}',
    text: '| Hello,\n|\n| Another !{appName} account asked to change its address to !{address}, which is already yours. Nothing changed, and no link was sent.\n| If this was you, sign in to the account that holds this address instead.\n',
    html: 'p Hello,\np Another #{appName} account asked to change its address to #{address}, which is already yours. Nothing changed, and no link was sent.\np If this was you, sign in to the account that holds this address instead.\n',
  },
};

const TEXT_DEFAULTS: Record<'verify' | 'reset', string> = {
  verify: '| !{appName}: confirm this number by opening !{link} (expires in !{expiresIn})',
  reset: '| !{appName}: choose a new password at !{link} (expires in !{expiresIn}). Did not ask? Ignore this.',
};

type Render = (locals: MailLocals) => string;

/** The compiled templates: each renders an e-mail or a text message from its locals. */
export class MailRenderer {
  private readonly mail = new Map<MailKind, Record<keyof MailTemplate, Render>>();
  private readonly texts = new Map<'verify' | 'reset', Render>();

  /** Compiles every template now, so a broken override fails at startup, not at the first mail. */
  constructor(overrides: MailTemplates = {}) {
    for (const kind of Object.keys(DEFAULTS) as MailKind[]) {
      const source = { ...DEFAULTS[kind], ...overrides.mail?.[kind] };
      this.mail.set(kind, {
        subject: compile(source.subject, `${kind}.subject`),
        text: compile(source.text, `${kind}.text`),
        html: compile(source.html, `${kind}.html`),
      });
    }
    for (const kind of ['verify', 'reset'] as const)
      this.texts.set(kind, compile(overrides.textMessage?.[kind] ?? TEXT_DEFAULTS[kind], `textMessage.${kind}`));
  }

  /** The e-mail of `kind` to `to`. */
  render(kind: MailKind, to: string, locals: MailLocals): { to: string; subject: string; text: string; html: string } {
    const template = this.mail.get(kind)!;
    // A subject is one line: a template's line breaks must never become header lines.
    const subject = template
      .subject(locals)
      .replace(/[\r\n]+/g, ' ')
      .trim();
    return { to, subject, text: template.text(locals), html: template.html(locals) };
  }

  /** The text message of `kind` to `to`. */
  renderText(kind: 'verify' | 'reset', to: string, locals: MailLocals): { to: string; text: string } {
    return { to, text: this.texts.get(kind)!(locals) };
  }
}

function compile(source: string, name: string): Render {
  try {
    return pug.compile(source, { filename: name }) as Render;
  } catch (error) {
    throw new ConfigurationError(`account: mail template ${name} does not compile: ${(error as Error).message}`);
  }
}
