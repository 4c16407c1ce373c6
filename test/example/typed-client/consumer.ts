// A consumer of the example's generated v1 and v2 clients: `journey` runs against a served
// example, and `misuses` (never called) holds lines that must not compile. The test
// compiles this file with plain tsc (strict, skipLibCheck off): an `@ts-expect-error` that
// no longer errors fails it.
import { bearerAuth, NotFoundError, sessionAuth, UnauthorizedError, ValidationError } from '@crudsmith/client';
import { createClient as createV1 } from '../../../examples/app/client/v1';
import { createClient as createV2 } from '../../../examples/app/client/v2';

/** What the journey saw, for the test's assertions. */
export interface JourneyResult {
  listed: (string | null | undefined)[];
  total: number;
  pageSizes: number[];
  updatedPrice: number | null | undefined;
  notFound: boolean;
  validationIssues: number;
  me: unknown;
  refreshed: boolean;
  refreshedOnce: boolean;
  sessionMe: unknown;
  signedOut: boolean;
  usersMe: string;
  exported: number;
  avatar: string;
}

// A real 1×1 PNG, uploaded as the signed-in user's avatar through the typed multipart route.
const PNG =
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0d9c0a40000000049454e44ae426082';

/** List with filters, paginate, create, update, and a bearer sign-in that refreshes once. */
export async function journey(baseUrl: string, user: { username: string; password: string }): Promise<JourneyResult> {
  const v1 = createV1({ baseUrl });
  const v2 = createV2({ baseUrl });
  const category = `client-${Math.random().toString(36).slice(2, 8)}`;
  const widget = await v1.items.create({ name: 'widget', category, price: 12.5 }, { idempotencyKey: category });
  await v1.items.create({ name: 'gadget', category, price: 30 });
  await v2.items.create({ name: 'gizmo', category, price: 8 });

  const cheap = await v1.items.list({ filters: { category, price__lte: 20 }, sort: ['-price', 'name'] });
  const pageSizes: number[] = [];
  for await (const page of v2.items.paginate({ filters: { category }, sort: 'name', limit: 2 }))
    pageSizes.push(page.data.length);

  await v2.items.update(widget.id, { price: 15 });
  const updated = await v2.items.get(widget.id);

  const notFound = await v2.items.get(2_000_000_000).then(
    () => false,
    (error: unknown) => error instanceof NotFoundError && error.status === 404,
  );
  const validationIssues = await v2.items.list({ limit: 0 }).then(
    () => 0,
    (error: unknown) => (error instanceof ValidationError ? error.issues.length : -1),
  );

  let refreshes = 0;
  const auth = bearerAuth({ onTokens: (tokens) => (refreshes += tokens ? 1 : 0) });
  const signed = createV2({ baseUrl, auth });
  await signed.account.token(user);
  const first = auth.current!;
  // A stale access token: the next requests meet a 401, refresh once together, and go again.
  auth.setTokens({ ...first, access_token: 'stale' });
  refreshes = 0;
  const [me] = await Promise.all([signed.account.me(), signed.account.me()]);
  // A custom route of the document, typed from its schemas.
  const usersMe = await signed.users.me();
  const png = Uint8Array.from(PNG.match(/../g)!, (byte) => parseInt(byte, 16));
  const withAvatar = await signed.users.avatar(
    { user_id: usersMe.id },
    { file: new Blob([png], { type: 'image/png' }) },
  );
  const exported = await v1.items.export({ filters: { category }, sort: 'name', format: 'csv' });

  // The session transport: a refused CSRF token is re-minted once, so sign-out goes through.
  const session = sessionAuth();
  const browser = createV2({ baseUrl, auth: session });
  await browser.account.signIn(user);
  session.setCsrfToken('stale');
  const sessionMe = await browser.account.me();
  await browser.account.signOut();
  const signedOut = await browser.account.me().then(
    () => false,
    (error: unknown) => error instanceof UnauthorizedError,
  );
  return {
    listed: cheap.data.map((row) => row.name),
    total: cheap.total_count,
    pageSizes,
    updatedPrice: updated.price,
    notFound,
    validationIssues,
    me,
    refreshed: auth.current!.refresh_token !== first.refresh_token,
    refreshedOnce: refreshes === 1,
    sessionMe,
    signedOut,
    usersMe: usersMe.username,
    exported: (await exported.text()).trim().split('\n').length,
    avatar: withAvatar.avatar_url,
  };
}

/** Never called: each misuse below must fail to compile. */
export async function misuses(): Promise<void> {
  const v1 = createV1({ baseUrl: 'http://localhost' });
  const v2 = createV2({ baseUrl: 'http://localhost' });
  // @ts-expect-error an undeclared filter key
  await v1.items.list({ filters: { colour: 'red' } });
  // @ts-expect-error an operator the column does not allow (text matching on a number)
  await v1.items.list({ filters: { price__like: '1%' } });
  // @ts-expect-error a wrong value type
  await v2.items.list({ filters: { price__gte: '10' } });
  // @ts-expect-error a list operator takes an array
  await v2.items.list({ filters: { id__in: 3 } });
  // @ts-expect-error an unknown sort field
  await v2.items.list({ sort: '-colour' });
  // @ts-expect-error two pagination forms mixed
  await v2.items.list({ page: 2, offset: 10 });
  // @ts-expect-error a body field the create schema lacks
  await v2.items.create({ name: 'x', colour: 'red' });
  // @ts-expect-error a body field of the wrong type
  await v2.items.update(1, { price: 'cheap' });
  // @ts-expect-error posts have no get in the document
  await v2.posts.get(1);
  // A post answers its tags (id and name), as the document says: typed, and nothing more.
  const [post] = (await v1.posts.list()).data;
  const tagNames: string[] = post.tags.map((tag) => tag.name);
  const tagIds: number[] = post.tags.map((tag) => tag.id);
  console.log(tagNames, tagIds);
  // @ts-expect-error a post's tag has no label
  console.log(post.tags[0].label);
  // @ts-expect-error a custom route's path parameter is typed (tier_name is a string)
  await v1.tiers.read({ tier_name: 3 });
  // @ts-expect-error a custom route's answer is typed: users have no price
  console.log((await v2.users.me()).price);
  // @ts-expect-error a custom route's body field the schema lacks
  await v2.items.upsert({ id: 1 }, { colour: 'red' });
  // @ts-expect-error a multipart route's file part is a Blob, not a string
  await v2.users.avatar({ user_id: 1 }, { file: 'me.png' });
}
