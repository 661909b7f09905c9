import type { SshKey } from '../../db/entities/index.js';
import type { SshKey as SshKeyShape } from '../../schemas/keys.js';
import type { View } from './view.js';

export function presentSshKeys(keys: SshKey[], _view: View): SshKeyShape[] {
  return keys.map((key) => ({ id: key.id, title: key.title, key: key.key, created_at: key.createdAt.toISOString() }));
}

export const presentSshKey = (key: SshKey, view: View): SshKeyShape => presentSshKeys([key], view)[0];
