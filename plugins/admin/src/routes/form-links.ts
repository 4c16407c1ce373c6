import type { Knex } from 'knex';
import type { AdminPrincipal } from '../admin-auth';
import type { AdminContext } from '../context';
import type { FormField } from '../form-fields';
import type { Translate } from '../i18n/translate';
import { linkedChoices, manyLinks, parseLinkSet, writeLinkSet, type LinkChange, type ManyLink } from '../many-to-many';
import type { ResolvedView } from '../model-view';
import { may } from '../view-access';
import { findChoices } from './lookup';

/** One many-to-many field a submission sent: the relation and the keys chosen. */
export interface LinkSet {
  link: ManyLink;
  keys: (string | number)[];
}

/** The many-to-many fields of a view's create and update forms: offered, shown and checked. */
export interface FormLinks {
  /** The relations the admin user may edit: those whose other view it may list. */
  of(principal: AdminPrincipal): ManyLink[];
  /** The multi-selects of a form: the rows linked now (`row` on an update page), chosen, then the first others. */
  fields(principal: AdminPrincipal, row: Record<string, unknown> | undefined): Promise<FormField[]>;
  /** The link sets a submission sends, each checked (a 422 on its field); a field not sent keeps its links. */
  sent(principal: AdminPrincipal, body: Record<string, unknown>, t: Translate): LinkSet[];
}

/** The many-to-many fields of `view`'s forms, whose search boxes ask the lookup routes under `base`. */
export function formLinks(ctx: AdminContext, view: ResolvedView, base: string): FormLinks {
  const links = manyLinks(ctx, view);
  const of = (principal: AdminPrincipal) => links.filter((link) => may(link.target, 'list', principal));
  return {
    of,
    async fields(principal, row) {
      const fields: FormField[] = [];
      for (const link of of(principal)) {
        const linked = row ? await linkedChoices(ctx.knex, link, row[link.ownerKey]) : [];
        const first = await findChoices(ctx, link.target, '', principal);
        fields.push({
          name: link.name,
          label: link.target.labels.plural,
          input: 'multiselect',
          required: false,
          value: '',
          options: [
            ...linked.map((c) => ({ ...c, selected: true })),
            ...first.filter((c) => !linked.some((l) => l.value === c.value)),
          ],
          lookup: `${base}/lookup/${link.name}`,
        });
      }
      return fields;
    },
    sent(principal, body, t) {
      return of(principal).flatMap((link) => {
        const keys = parseLinkSet(link, body, t);
        return keys === undefined ? [] : [{ link, keys }];
      });
    },
  };
}

/** Writes the link sets of the row `owner` refers to in the write's transaction; the changed ones by relation name. */
export async function writeLinkSets(
  trx: Knex.Transaction,
  sets: readonly LinkSet[],
  owner: Record<string, unknown>,
  t: Translate,
): Promise<Record<string, LinkChange>> {
  const changes: Record<string, LinkChange> = {};
  for (const { link, keys } of sets) {
    const change = await writeLinkSet(trx, link, owner[link.ownerKey], { keys, t });
    if (change) changes[link.name] = change;
  }
  return changes;
}
