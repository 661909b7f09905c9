/** forgekit's own version; a test keeps it equal to package.json's. */
export const FORGEKIT_VERSION = '0.1.0';

/** The version of the original service whose API this one matches; clients gate features on it. */
export const API_VERSION = '10.1.0';
