import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import CompressionPlugin from 'compression-webpack-plugin';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import webpack, { type Compiler, type Configuration } from 'webpack';
import { inputsHash, readStamp, writeStamp } from './src/build/inputsStamp';
import type { Configuration as DevServerConfiguration } from 'webpack-dev-server';

/** Emits public/images and public/videos (the landing page's media) into the build as they are. */
class PublicMediaPlugin {
  apply(compiler: Compiler): void {
    const { RawSource } = compiler.webpack.sources;
    compiler.hooks.thisCompilation.tap('PublicMediaPlugin', (compilation) => {
      compilation.hooks.processAssets.tap({ name: 'PublicMediaPlugin', stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
        for (const dir of ['images', 'videos']) {
          const from = path.resolve(process.cwd(), 'public', dir);
          if (!fs.existsSync(from)) continue;
          for (const file of fs.readdirSync(from)) {
            compilation.fileDependencies.add(path.join(from, file));
            compilation.emitAsset(`${dir}/${file}`, new RawSource(fs.readFileSync(path.join(from, file))));
          }
        }
      });
    });
  }
}

/**
 * What the client build reads: its sources, the contract it shares with the server, the static files,
 * and what decides how they are built (this file, the compiler settings, the exact package versions).
 */
const CLIENT_INPUTS = ['src/client', 'src/shared', 'public', 'webpack.config.ts', 'src/build/inputsStamp.ts', 'tsconfig.json', 'package-lock.json'];
/** Beside dist/public rather than in it: `output.clean` empties dist/public when a build starts. */
const CLIENT_STAMP = path.resolve(process.cwd(), 'dist/client-inputs.sha256');

/** Writes the inputs' stamp once a production build has finished without errors. */
class InputsStampPlugin {
  constructor(private readonly hash: string) {}
  apply(compiler: Compiler): void {
    compiler.hooks.done.tap('InputsStampPlugin', (stats) => {
      if (!stats.hasErrors()) writeStamp(CLIENT_STAMP, this.hash);
    });
  }
}

/**
 * Progress on one line per tenth (a build takes minutes on a busy machine; it used to be silent until
 * the end), to stdout, which `npm start` shows.
 */
function progressLines(): webpack.ProgressPlugin {
  let shown = -1;
  return new webpack.ProgressPlugin({
    // By modules built: the long 'building' phase moves through its tenths instead of jumping from 10 to 60.
    percentBy: 'modules',
    handler: (fraction, message) => {
      const tenth = Math.floor(fraction * 10);
      if (tenth <= shown) return;
      shown = tenth;
      process.stdout.write(`webpack: ${tenth * 10}% ${message}\n`);
    },
  });
}

/** What is worth compressing at build time (images and videos are compressed already). */
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/;

/**
 * Client bundle. Production output lands in dist/public, which the Fastify server serves.
 * In development webpack-dev-server proxies /api (HTTP, SSE and WebSockets) to the watched server.
 */
export default (_env: unknown, argv: { mode?: Configuration['mode'] }): Configuration & { devServer?: DevServerConfiguration } => {
  const production = argv.mode !== 'development';
  // A production build whose inputs did not change since the last one (dist/ still holds it) is skipped:
  // a second `npm start` serves in seconds instead of rebuilding for minutes. FORCE_BUILD=1 builds anyway.
  const hash = production ? inputsHash(CLIENT_INPUTS) : '';
  if (production && !process.env.FORCE_BUILD && readStamp(CLIENT_STAMP) === hash && fs.existsSync(path.resolve(process.cwd(), 'dist/public/index.html'))) {
    process.stdout.write('webpack: the client inputs are unchanged since the last build (dist/client-inputs.sha256); skipped\n');
    process.exit(0);
  }
  const apiTarget = `http://127.0.0.1:${process.env.PORT ?? 8080}`;
  return {
    mode: production ? 'production' : 'development',
    entry: { main: './src/client/index.tsx' },
    output: {
      path: path.resolve(process.cwd(), 'dist/public'),
      filename: production ? 'assets/[name].[contenthash:8].js' : 'assets/[name].js',
      chunkFilename: production ? 'assets/[name].[contenthash:8].js' : 'assets/[name].js',
      publicPath: '/',
      clean: true,
    },
    resolve: { extensions: ['.tsx', '.ts', '.js', '.mjs'] },
    module: {
      rules: [
        { test: /\.[cm]?tsx?$/, loader: 'esbuild-loader', options: { target: 'es2020', jsx: 'automatic' } },
        // The contract only declares (texts, limits, schemas), so an import through the constants barrel
        // takes just the area it names: the landing page's chunk does not pull every stage's texts.
        { test: /[\\/]src[\\/]shared[\\/]/, sideEffects: false },
        { test: /\.css$/, use: ['style-loader', 'css-loader'] },
      ],
    },
    plugins: [
      ...(production ? [progressLines(), new InputsStampPlugin(hash)] : []),
      new HtmlWebpackPlugin({ template: './public/index.html', favicon: './public/favicon.svg' }),
      new PublicMediaPlugin(),
      // Served precompressed by staticFilesPlugin (@fastify/static's preCompressed): brotli, else gzip.
      ...(production
        ? [
            new CompressionPlugin({ test: COMPRESSIBLE, threshold: 1024, algorithm: 'gzip', filename: '[path][base].gz' }),
            new CompressionPlugin<zlib.BrotliOptions>({
              test: COMPRESSIBLE,
              threshold: 1024,
              algorithm: 'brotliCompress',
              filename: '[path][base].br',
              compressionOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } },
            }),
          ]
        : []),
    ],
    // Maps are written for our own debugging but never referenced, and staticFilesPlugin never serves them.
    devtool: production ? 'hidden-source-map' : 'eval-cheap-module-source-map',
    // Hints are errors: the entry (what the landing page loads) and every ordinary chunk stay small.
    // mermaid's grammar parser is one 1.26 MiB module that cannot be split; it gets its own chunk,
    // loaded only when a plan shows a diagram, and only that chunk is left out of the size check.
    performance: production
      ? {
          hints: 'error',
          maxEntrypointSize: 560_000,
          maxAssetSize: 560_000,
          assetFilter: (f: string) => f.endsWith('.js') && !f.includes('mermaid-parser.'),
        }
      : false,
    optimization: {
      splitChunks: {
        chunks: 'async',
        cacheGroups: {
          mermaidParser: { test: /[\\/]node_modules[\\/]@mermaid-js[\\/]parser[\\/]/, name: 'mermaid-parser', chunks: 'async', priority: 10 },
        },
      },
    },
    devServer: {
      host: '127.0.0.1',
      port: Number(process.env.DEV_CLIENT_PORT ?? 3000),
      hot: true,
      historyApiFallback: true,
      static: { directory: path.resolve(process.cwd(), 'public'), publicPath: '/' },
      proxy: [{ context: ['/api'], target: apiTarget, ws: true, changeOrigin: false }],
    },
  };
};
