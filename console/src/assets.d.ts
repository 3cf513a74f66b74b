// The stylesheet main.tsx imports for its side effect: esbuild bundles it into the build's CSS file.
declare module '*.css';
