export * from './common.js';
export * from './errors.js';
export * from './custom-attributes.js';
export * from './keys.js';
export * from './settings.js';
export * from './tokens.js';
export * from './users.js';
export * from './instance.js';
