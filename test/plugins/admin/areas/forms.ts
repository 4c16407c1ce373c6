import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterHarness } from '../../../adapters/conformance';
import type { Engine } from '../../../fixtures/db';
import { seed, startAdminApp, writes, type AdminEnv, type Client } from '../fixture';

/** The create and update forms generated from the schemas, and their submissions. */
export function formsArea(harness: AdapterHarness, engine: Engine): void {
  describe(`admin forms on ${harness.name} / ${engine}`, () => {
    let env: AdminEnv;
    let client: Client;
    let uids: string[];
    beforeAll(async () => {
      env = await startAdminApp(harness, engine);
      uids = await seed(env.db, 2);
      client = await env.signedIn();
    });
    afterAll(async () => env?.close());

    it('renders the create form from the schema: input types, required marks, max lengths, the hidden token', async () => {
      const page = await client.get('/admin/items/create_page');
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/<input id="f-name" type="text" name="name" value="" required maxlength="40"/);
      expect(page.text).toMatch(/<input id="f-price" type="number" name="price" value="" step="any"/);
      expect(page.text).toMatch(
        /<input type="hidden" name="in_stock" value="false"><input id="f-in_stock" type="checkbox" name="in_stock" value="true"/,
      );
      expect(page.text).toContain(`name="csrf_token" value="${client.csrf}"`);
    });

    it('creates a row: 303 to the list, typed values stored, creation time stamped', async () => {
      const answer = await client.postForm('/admin/items/form_create', {
        name: 'lamp',
        category: '',
        price: '12.5',
        in_stock: ['false', 'true'],
      });
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe('/admin/items/');
      const row = await env.db.knex('items').where({ name: 'lamp' }).first();
      expect(row).toMatchObject({ category: null, price: 12.5 });
      expect(Boolean(row.in_stock)).toBe(true);
      expect(row.created_at).toBeTruthy();
    });

    it('takes a multi-value field as a multiple select of the values the schema lists', async () => {
      const page = await client.get('/admin/items/create_page');
      expect(page.text).toMatch(
        /<input type="hidden" name="tags" value=""><select id="f-tags" name="tags" multiple size="3"><option value="red">red<\/option>/,
      );
      expect(
        (await client.postForm('/admin/items/form_create', { name: 'tagged', tags: ['', 'red', 'blue'] })).status,
      ).toBe(303);
      const row = await env.db.knex('items').where({ name: 'tagged' }).first();
      expect(typeof row.tags === 'string' ? JSON.parse(row.tags) : row.tags).toEqual(['red', 'blue']);
      const edit = await client.get(`/admin/items/update/${row.id}`);
      expect(edit.text).toContain(
        '<option value="red" selected>red</option><option value="green">green</option><option value="blue" selected>blue</option>',
      );
      expect((await client.postForm('/admin/items/form_create', { name: 'bad tag', tags: ['purple'] })).status).toBe(
        422,
      );
    });

    it('answers htmx with HX-Redirect instead of a 303', async () => {
      const answer = await client.request('POST', '/admin/items/form_create', {
        form: { csrf_token: client.csrf, name: 'via htmx' },
        headers: { 'HX-Request': 'true' },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('hx-redirect')).toBe('/admin/items/');
    });

    it('re-renders the form with field messages and 422 on invalid input, writing nothing', async () => {
      const before = await env.db.knex('items').count({ n: '*' }).first();
      const missing = await client.postForm('/admin/items/form_create', { price: '3' });
      expect(missing.status).toBe(422);
      expect(missing.text).toMatch(/<p class="error" role="alert">[^<]+<\/p>/);
      expect(missing.text).toContain('value="3"');
      const notNumber = await client.postForm('/admin/items/form_create', { name: 'x', price: 'cheap' });
      expect(notNumber.status).toBe(422);
      expect(notNumber.text).toContain('Enter a number');
      const tooLong = await client.postForm('/admin/items/form_create', { name: 'x'.repeat(41) });
      expect(tooLong.status).toBe(422);
      expect(await env.db.knex('items').count({ n: '*' }).first()).toEqual(before);
    });

    it('updates only the fields sent and stamps the update time', async () => {
      const [id] = (await env.db.knex('items').where({ name: 'item-01' }).select('id')).map((r) => r.id);
      const page = await client.get(`/admin/items/update/${id}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('value="item-01"');
      const answer = await client.postForm(`/admin/items/form_update/${id}`, { price: '99' });
      expect(answer.status).toBe(303);
      const row = await env.db.knex('items').where({ id }).first();
      expect(row).toMatchObject({ name: 'item-01', category: 'odd', price: 99 });
      expect(row.updated_at).toBeTruthy();
    });

    it('shows both values and writes nothing when someone else saved the row after the form was opened', async () => {
      const [id] = (await env.db.knex('items').where({ name: 'item-02' }).select('id')).map((r) => r.id);
      const stateOf = (text: string) => /name="_state" value="([^"]+)"/.exec(text)?.[1];
      const opened = stateOf((await client.get(`/admin/items/update/${id}`)).text);
      expect(opened).toBeTruthy();
      // Another editor, who opened the same page, saves first.
      expect((await client.postForm(`/admin/items/form_update/${id}`, { price: '50', _state: opened! })).status).toBe(
        303,
      );
      const stale = await client.postForm(`/admin/items/form_update/${id}`, { price: '60', _state: opened! });
      expect(stale.status).toBe(409);
      expect(stale.text).toContain('Someone else saved this row after you opened it');
      expect(stale.text).toMatch(/<th scope="row">Price<\/th><td>60<\/td><td>50<\/td>/);
      expect(Number((await env.db.knex('items').where({ id }).first()).price)).toBe(50);
      // The page it answers carries the row's new state: saving again keeps this editor's value.
      const again = await client.postForm(`/admin/items/form_update/${id}`, {
        price: '60',
        _state: stateOf(stale.text)!,
      });
      expect(again.status).toBe(303);
      expect(Number((await env.db.knex('items').where({ id }).first()).price)).toBe(60);
    });

    it('answers 404 for a missing id on the form and its submission', async () => {
      expect((await client.get('/admin/items/update/424242')).status).toBe(404);
      expect((await client.postForm('/admin/items/form_update/424242', { name: 'ghost' })).status).toBe(404);
    });

    it('updates a UUID-keyed row by its key', async () => {
      const answer = await client.postForm(`/admin/gadgets/form_update/${uids[0]}`, { label: 'renamed' });
      expect(answer.status).toBe(303);
      expect((await env.db.knex('gadgets').where({ uid: uids[0] }).first()).label).toBe('renamed');
      expect((await client.get('/admin/gadgets/update/not-a-uuid')).status).toBe(404);
    });

    it('takes a file upload on a multipart form: checked for size (413) and type (400), kept by the view, unchanged without one', async () => {
      const form = await client.get(`/admin/gadgets/update/${uids[1]}`);
      expect(form.text).toContain('enctype="multipart/form-data"');
      expect(form.text).toMatch(/<input id="f-manual" type="file" name="manual" accept="text\/plain">/);
      const upload = (content: string, type = 'text/plain') => {
        const data = new FormData();
        data.append('csrf_token', client.csrf);
        data.append('label', 'with manual');
        data.append('manual', new Blob([content], { type }), 'manual.txt');
        return client.request('POST', `/admin/gadgets/form_update/${uids[1]}`, { multipart: data });
      };
      expect((await upload('hello')).status).toBe(303);
      expect(await env.db.knex('gadgets').where({ uid: uids[1] }).first()).toMatchObject({
        label: 'with manual',
        manual: 'stored:manual.txt:5',
      });
      expect((await upload('x'.repeat(1001))).status).toBe(413);
      expect((await upload('<b>hi</b>', 'text/html')).status).toBe(400);
      expect((await client.postForm(`/admin/gadgets/form_update/${uids[1]}`, { label: 'relabelled' })).status).toBe(
        303,
      );
      expect(await env.db.knex('gadgets').where({ uid: uids[1] }).first()).toMatchObject({
        label: 'relabelled',
        manual: 'stored:manual.txt:5',
      });
    });

    it('hashes a password field on create, never shows it, and keeps it when left empty on update', async () => {
      expect(
        (await client.postForm('/admin/users/form_create', { username: 'alice', password: 'a long enough secret' }))
          .status,
      ).toBe(303);
      const row = await env.db.knex('app_users').where({ username: 'alice' }).first();
      expect(row.hashed_password).toMatch(/^\$2[aby]\$04\$/);
      const list = await client.get('/admin/users/');
      expect(list.text).not.toContain(row.hashed_password);
      expect(list.text).not.toContain('hashed_password');
      const form = await client.get(`/admin/users/update/${row.id}`);
      expect(form.text).toMatch(/<input id="f-password" type="password" name="password" value=""/);
      expect(form.text).not.toContain(row.hashed_password);
      expect(
        (await client.postForm(`/admin/users/form_update/${row.id}`, { username: 'alice2', password: '' })).status,
      ).toBe(303);
      const kept = await env.db.knex('app_users').where({ id: row.id }).first();
      expect(kept).toMatchObject({ username: 'alice2', hashed_password: row.hashed_password });
      expect(
        (await client.postForm(`/admin/users/form_update/${row.id}`, { password: 'another long secret' })).status,
      ).toBe(303);
      expect((await env.db.knex('app_users').where({ id: row.id }).first()).hashed_password).not.toBe(
        row.hashed_password,
      );
    });

    it('offers a foreign key as a select of the referenced rows, and shows their labels in the list', async () => {
      const [free, pro] = await Promise.all(
        ['free', 'pro'].map(async (name) => {
          await env.db.knex('tiers').insert({ name });
          return (await env.db.knex('tiers').where({ name }).first()).id as number;
        }),
      );
      const form = await client.get('/admin/users/create_page');
      expect(form.text).toMatch(
        /<select id="f-tier_id" name="tier_id"><option value="" selected>—<\/option><option value="\d+">free<\/option><option value="\d+">pro<\/option><\/select>/,
      );
      expect(
        (
          await client.postForm('/admin/users/form_create', {
            username: 'bob',
            password: 'a long enough secret',
            tier_id: String(pro),
          })
        ).status,
      ).toBe(303);
      expect((await env.db.knex('app_users').where({ username: 'bob' }).first()).tier_id).toBe(pro);
      const list = await client.get('/admin/users/');
      expect(list.text).toContain(`<td><span class="ref" title="#${pro}">pro</span></td>`);
      expect(list.text).not.toContain(`free (${free})`);
    });

    it("runs the view's beforeWrite on the checked values and its afterWrite once written", async () => {
      const before = writes.length;
      expect((await client.postForm('/admin/tiers/form_create', { name: '  Gold ' })).status).toBe(303);
      expect(await env.db.knex('tiers').where({ name: 'gold' }).first()).toBeTruthy();
      expect(writes.slice(before)).toEqual(['tiers:create']);
    });

    it('shows a unique violation as a form error (409), writing nothing', async () => {
      const answer = await client.postForm('/admin/users/form_create', {
        username: 'alice2',
        password: 'yet another secret',
      });
      expect(answer.status).toBe(409);
      expect(answer.text).toMatch(/<p class="error" role="alert">/);
      expect(Number((await env.db.knex('app_users').where({ username: 'alice2' }).count({ n: '*' }).first())!.n)).toBe(
        1,
      );
    });
  });
}
