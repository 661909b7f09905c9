/** A user of a benchmark's service (`owner` by default), signed up as an administrator makes one, and its API token. */
import type { HostingService } from 'forgekit';

export async function benchUser(hosting: HostingService, username = 'owner') {
  const name = username[0].toUpperCase() + username.slice(1);
  const user = await hosting.users.create({
    username,
    email: `${username}@example.com`,
    name,
    password: 'bench-password-1',
    skip_confirmation: true,
  });
  const token = (await hosting.personalAccessTokens.create(user.id, { name: 'bench', scopes: ['api'] })).token;
  return { user, token };
}
