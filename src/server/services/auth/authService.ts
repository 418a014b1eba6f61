import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { installations, users } from '../../db/schema';
import type { UserProfile } from '../../../shared/api/auth';
import { identiconDataUrl } from './identicon';

export interface SignedInIdentity {
  userId: number;
  installationId: number;
  publicInstallationId: number;
}

export interface GithubIdentity {
  githubUserId: number;
  login: string;
  name: string | null;
  avatarUrl: string | null;
  installationId: number;
}

/**
 * Users and installations. A local login name is its own tenant: one user, one installation whose
 * public id is the user's id. A GitHub installation may be shared by the users it lists.
 */
export function createAuthService({ db }: { db: Db }) {
  return {
    /** Creates or finds the local user `login` (case-insensitive) and its installation. */
    async signInLocal(login: string): Promise<SignedInIdentity> {
      return db.transaction(async (tx) => {
        const key = login.toLowerCase();
        await tx.insert(users).values({ provider: 'local', providerUserId: key, login, name: null }).onConflictDoNothing();
        const [user] = await tx
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.provider, 'local'), eq(users.providerUserId, key)));
        await tx
          .insert(installations)
          .values({ provider: 'local', publicId: user!.id, ownerUserId: user!.id })
          .onConflictDoNothing();
        const [inst] = await tx
          .select({ id: installations.id, publicId: installations.publicId })
          .from(installations)
          .where(and(eq(installations.provider, 'local'), eq(installations.publicId, user!.id)));
        return { userId: user!.id, installationId: inst!.id, publicInstallationId: inst!.publicId };
      });
    },

    /** Records a GitHub user and an installation that GitHub confirmed the user can access. */
    async signInGithub(identity: GithubIdentity): Promise<SignedInIdentity> {
      return db.transaction(async (tx) => {
        const providerUserId = String(identity.githubUserId);
        const [user] = await tx
          .insert(users)
          .values({ provider: 'github', providerUserId, login: identity.login, name: identity.name, avatarUrl: identity.avatarUrl })
          .onConflictDoUpdate({
            target: [users.provider, users.providerUserId],
            set: { login: identity.login, name: identity.name, avatarUrl: identity.avatarUrl },
          })
          .returning({ id: users.id });
        await tx
          .insert(installations)
          .values({ provider: 'github', publicId: identity.installationId, ownerUserId: user!.id })
          .onConflictDoNothing();
        const [inst] = await tx
          .select({ id: installations.id, publicId: installations.publicId })
          .from(installations)
          .where(and(eq(installations.provider, 'github'), eq(installations.publicId, identity.installationId)));
        return { userId: user!.id, installationId: inst!.id, publicInstallationId: inst!.publicId };
      });
    },

    async profile(userId: number): Promise<UserProfile | null> {
      const [user] = await db.select().from(users).where(eq(users.id, userId));
      if (!user) return null;
      return { login: user.login, name: user.name, avatar_url: user.avatarUrl ?? identiconDataUrl(user.login) };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
