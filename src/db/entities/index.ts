import { AuthFailure } from './auth-failures.js';
import { AccessToken } from './tokens.js';
import { Email, GpgKey, SshKey } from './keys.js';
import { ApplicationSettingsRow } from './settings.js';
import { CALLERS_CHANGED_CHANNEL, CustomAttribute, Identity, User, UserAvatar } from './user.js';

export { CALLERS_CHANGED_CHANNEL };
export { AccessToken, ApplicationSettingsRow, AuthFailure, CustomAttribute, Email, GpgKey, Identity, SshKey, User, UserAvatar };

export const entities = [User, UserAvatar, Identity, CustomAttribute, SshKey, GpgKey, Email, AccessToken, ApplicationSettingsRow, AuthFailure];
