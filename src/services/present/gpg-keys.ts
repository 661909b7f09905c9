import type { GpgKey } from '../../db/entities/index.js';
import type { GpgKey as GpgKeyShape } from '../../schemas/keys.js';
import type { View } from './view.js';

export function presentGpgKeys(keys: GpgKey[], _view: View): GpgKeyShape[] {
  return keys.map((key) => ({ id: key.id, key: key.key, created_at: key.createdAt.toISOString() }));
}

export const presentGpgKey = (key: GpgKey, view: View): GpgKeyShape => presentGpgKeys([key], view)[0];
