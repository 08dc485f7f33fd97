/** What every response shows in place of a secret value. */
export const SECRET_MASK = '********';
