// `cors` ships no types (and @types/cors is not installed): the part the gateway uses.
declare module 'cors' {
  import type { RequestHandler } from 'express';

  type OriginCallback = (err: Error | null, allow?: boolean) => void;
  interface CorsOptions {
    origin?: boolean | string | RegExp | (string | RegExp)[] | ((origin: string | undefined, callback: OriginCallback) => void);
    methods?: string | string[];
    allowedHeaders?: string | string[];
    exposedHeaders?: string | string[];
    credentials?: boolean;
    maxAge?: number;
    preflightContinue?: boolean;
    optionsSuccessStatus?: number;
  }
  function cors(options?: CorsOptions): RequestHandler;
  export = cors;
}
