import { User } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { NotFoundError } from '../../errors.js';

/** The user, by ID (or by username where a route takes either); null for none. */
export function findUserByIdOrUsername(em: EntityManager, idOrUsername: number | string): Promise<User | null> {
  return em.findOne(User, typeof idOrUsername === 'number' ? { id: idOrUsername } : { usernameLower: idOrUsername.toLowerCase() });
}

/** The user, or `404 User Not Found`. */
export async function findUserOrFail(em: EntityManager, idOrUsername: number | string): Promise<User> {
  const user = await findUserByIdOrUsername(em, idOrUsername);
  if (!user) throw new NotFoundError('User');
  return user;
}
