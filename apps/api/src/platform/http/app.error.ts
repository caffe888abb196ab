/**
 * `AppError`: a PassportError that also accepts the app's own codes (`app-error.catalogue.ts`), so that
 * every error the app answers with, the core's and its own, reaches the error envelope the same way.
 */
import { PassportError, type ErrorCode } from '@passport/core';
import { describeError } from '@passport/core/errors';
import { APP_ERROR_CATALOGUE, type AppCatalogueCode } from './app-error.catalogue.js';

/** Every code the app can answer with. */
export type AnyErrorCode = ErrorCode | AppCatalogueCode;

export function isAppCatalogueCode(code: string): code is AppCatalogueCode {
  return Object.prototype.hasOwnProperty.call(APP_ERROR_CATALOGUE, code);
}

/** The message of any code the app can answer with; undefined for unknown codes. */
export function describeAnyError(code: string): { readonly message: string } | undefined {
  return isAppCatalogueCode(code) ? APP_ERROR_CATALOGUE[code] : describeError(code);
}

export class AppError extends PassportError<AnyErrorCode> {
  protected static override describe(code: string): { readonly message: string } | undefined {
    return describeAnyError(code);
  }
}
