// The types an app reads its users with: `account<AppUser>()` hands out the app's own user
// type, never null where the dependency guarantees a user. Checked by the type check
// (`npm run typecheck` covers test/); the assertions below are no-ops at run time.
import { describe, expectTypeOf, it } from 'vitest';
import type { Dependency, NeutralRequest } from '@crudsmith/core';
import { account, type AccountPlugin, type AccountUser } from '@crudsmith/account';

interface AppUser {
  id: number;
  username: string;
  email: string;
  is_superuser: boolean;
}

type Auth = ReturnType<typeof account<AppUser>>;

describe('the account plugin typed with the app user type', () => {
  it('currentUser() answers the app user, non-null unless optional', () => {
    expectTypeOf<ReturnType<Auth['currentUser']>>().toExtend<Dependency<AppUser | null>>();
    const read = async (auth: Auth, req: NeutralRequest) => {
      const me = await req.resolve(auth.currentUser());
      expectTypeOf(me).toEqualTypeOf<AppUser>();
      expectTypeOf(me.username).toEqualTypeOf<string>();
      expectTypeOf(
        await req.resolve(auth.currentUser({ superuser: true, scopes: ['admin'] })),
      ).toEqualTypeOf<AppUser>();
      expectTypeOf(await req.resolve(auth.currentUser({ optional: true }))).toEqualTypeOf<AppUser | null>();
      expectTypeOf(
        await req.resolve(auth.currentUser({ optional: Math.random() > 0.5 })),
      ).toEqualTypeOf<AppUser | null>();
      expectTypeOf(await req.resolve(auth.requireSudo())).toEqualTypeOf<AppUser>();
      expectTypeOf(await req.resolve(auth.requireFreshSignIn())).toEqualTypeOf<AppUser>();
      expectTypeOf(
        await auth.createUser({ username: 'ada', email: 'ada@example.com', password: 'a long passphrase' }),
      ).toEqualTypeOf<AppUser>();
    };
    expectTypeOf(read).toBeFunction();
  });

  it('without a type argument, a user is the loose row', () => {
    expectTypeOf<ReturnType<typeof account<AccountUser>>>().toEqualTypeOf<AccountPlugin>();
    const read = async (auth: AccountPlugin, req: NeutralRequest) => {
      expectTypeOf(await req.resolve(auth.currentUser())).toEqualTypeOf<AccountUser>();
    };
    expectTypeOf(read).toBeFunction();
  });
});
