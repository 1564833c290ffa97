#!/bin/sh
# Ranks inherit the environment; -x, -genv and -env pass or set variables.
. "$(dirname "$0")/common.sh"

export FARO_T_INHERIT=inherited FARO_T_X=from-x
run 0 -n 2 -x FARO_T_X -x FARO_T_SET=set=with=equals -genv FARO_T_G "two words" \
    -env FARO_T_E e "$PROBE" env FARO_T_INHERIT FARO_T_X FARO_T_SET FARO_T_G FARO_T_E \
    FARO_T_NONE PMI_SIZE
for l in FARO_T_INHERIT=inherited FARO_T_X=from-x FARO_T_SET=set=with=equals \
         "FARO_T_G=two words" FARO_T_E=e "FARO_T_NONE unset" PMI_SIZE=2; do
    [ "$(grep -cxF -- "$l" "$OUT.out")" -eq 2 ] || fail "both ranks should print: $l"
done

run 0 -n 1 -x FARO_T_UNSET_VAR "$PROBE" env FARO_T_UNSET_VAR
expect_err "-x FARO_T_UNSET_VAR: FARO_T_UNSET_VAR is not set here"

run 2 -n 1 -x 1BAD=x true
expect_err "'1BAD' is not a valid environment variable name"
# Hydra's one-word form: a word holding '=' is VAR=VALUE, for -genv and -env.
run 0 -n 1 -genv FARO_T_G=one=word -env FARO_T_E=e1 -genv FARO_T_G2 "two words" \
    "$PROBE" env FARO_T_G FARO_T_E FARO_T_G2
for l in FARO_T_G=one=word FARO_T_E=e1 "FARO_T_G2=two words"; do
    expect_out "$l"
done
run 0 -n 1 -genv FARO_T_G= "$PROBE" env FARO_T_G
expect_out "FARO_T_G="
run 2 -n 1 -genv 1BAD=x true
expect_err "'1BAD' is not a valid environment variable name"
run 2 -n 1 -genv ONLYNAME
expect_err "option -genv needs VAR=VALUE, or two values: VAR VALUE"
run 2 -n 1 -env
expect_err "option -env needs VAR=VALUE, or two values: VAR VALUE"
echo PASS
