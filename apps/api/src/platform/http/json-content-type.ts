/** The Content-Type of every JSON answer the app writes itself (routes sending prebuilt bytes, the error paths). */
export const JSON_UTF8 = 'application/json; charset=utf-8';
