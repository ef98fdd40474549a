import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type Validate = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/**
 * fastify's own schema compilers (ajv for the validators, fast-json-stringify for the
 * response serializers), each route's functions made at their first use instead of when the
 * server gets ready: compiling every route's took about 0.75 s of CPU before the public port
 * opened at each start, while a route's own takes milliseconds. The validator keeps ajv's
 * face (fastify reads `schemaEnv` and `errors` off it); a schema that does not compile fails
 * the route's first request instead of the start, and the route tests cover every schema.
 */
export function lazySchemaCompilers() {
  const validators = AjvCompiler();
  const serializers = SerializerSelector();
  return {
    buildValidator: (...build: Parameters<typeof validators>) => {
      const compiler = validators(...build);
      return (route: Parameters<typeof compiler>[0]) => {
        let compiled: Validate | undefined;
        const made = () => (compiled ??= compiler(route) as Validate);
        const validate = function (this: unknown, ...args: unknown[]) {
          return made().apply(this, args);
        };
        Object.defineProperty(validate, 'errors', { get: () => made().errors });
        Object.defineProperty(validate, 'schemaEnv', { get: () => made().schemaEnv });
        return validate as unknown as ReturnType<typeof compiler>;
      };
    },
    buildSerializer: (...build: Parameters<typeof serializers>) => {
      const compiler = serializers(...build);
      return (route: Parameters<typeof compiler>[0]) => {
        let serialize: ReturnType<typeof compiler> | undefined;
        return (doc: unknown) => (serialize ??= compiler(route))(doc);
      };
    },
  };
}
