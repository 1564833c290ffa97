#!/bin/sh
# make-pc.sh TEMPLATE NAME VERSION PREFIX LIBDIR INCLUDEDIR PKGCONFIGDIR [LDEXTRA]
# Writes TEMPLATE to stdout with its %PLACEHOLDERS% filled. When PKGCONFIGDIR
# is below PREFIX, prefix is written relative to the file's own directory
# (${pcfiledir}/../..), and libdir and includedir below PREFIX relative to
# ${prefix}, so that a copied or moved installation still answers with its
# own paths. LDEXTRA: link flags a program needs first (a sanitizer build's).
set -eu
template=$1 name=$2 version=$3 prefix=${4%/} libdir=$5 includedir=$6 pcdir=$7 ldextra=${8:-}

pcprefix=$prefix
case $pcdir in
    "$prefix"/*)
        # one ".." per component of the path from the prefix to PKGCONFIGDIR
        up=$(printf '%s\n' "${pcdir#"$prefix"/}" | sed -e 's|/*$||' -e 's|[^/][^/]*|..|g')
        pcprefix="\${pcfiledir}/$up" ;;
esac
below_prefix() {
    case $1 in
        "$prefix") echo "\${prefix}" ;;
        "$prefix"/*) echo "\${prefix}/${1#"$prefix"/}" ;;
        *) echo "$1" ;;
    esac
}
sed -e "s|%PREFIX%|$pcprefix|g" -e "s|%LIBDIR%|$(below_prefix "$libdir")|g" \
    -e "s|%INCLUDEDIR%|$(below_prefix "$includedir")|g" -e "s|%VERSION%|$version|g" \
    -e "s|%NAME%|$name|g" -e "s|%LDEXTRA%|$ldextra|g" -e 's| *$||' "$template"
