package com.example.crawl.egress.api;

import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Runs {@code x-kubernetes-validations} rules with {@code dev.cel}: {@code self} and
 * {@code oldSelf} are dynamic values, the environment is the standard library plus the strings
 * extension (which Kubernetes enables as well), and the result must be a bool.
 *
 * <p>Unlike the API server it does not type-check rules against the schema (a misspelt field
 * fails at evaluation, not at CRD creation) and does not estimate cost. Not thread-safe: the
 * program cache is a plain map.
 */
final class CelRules {

    private static final Pattern OLD_SELF = Pattern.compile("\\boldSelf\\b");

    private final CelCompiler compiler = CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("self", SimpleType.DYN)
            .addVar("oldSelf", SimpleType.DYN)
            .addLibraries(CelExtensions.strings())
            .setResultType(SimpleType.BOOL)
            .build();
    private final CelRuntime runtime = CelRuntimeFactory.standardCelRuntimeBuilder()
            .addLibraries(CelExtensions.strings())
            .build();
    private final Map<String, CelRuntime.Program> programs = new HashMap<>();

    /** A transition rule compares with the stored object and only runs on update. */
    static boolean isTransition(ValidationRule rule) {
        return OLD_SELF.matcher(rule.getRule()).find();
    }

    /**
     * Evaluates {@code rule}; empty when it holds, else the message the API server would report
     * (the rule's message, or the rule text when it has none, or the evaluation error).
     *
     * @throws IllegalArgumentException when the rule does not compile, which the API server would
     *                                  have refused when the CRD was created
     */
    Optional<String> failure(ValidationRule rule, Object self, Object oldSelf) {
        Map<String, Object> vars = new HashMap<>();
        vars.put("self", self);
        if (oldSelf != null) {
            vars.put("oldSelf", oldSelf);
        }
        try {
            if (Boolean.TRUE.equals(program(rule.getRule()).eval(vars))) {
                return Optional.empty();
            }
            return Optional.of(rule.getMessage() != null ? rule.getMessage() : "failed rule: " + rule.getRule());
        } catch (CelEvaluationException e) {
            return Optional.of("evaluation error in rule " + rule.getRule() + ": " + e.getMessage());
        }
    }

    private CelRuntime.Program program(String rule) {
        CelRuntime.Program cached = programs.get(rule);
        if (cached != null) {
            return cached;
        }
        try {
            CelRuntime.Program program = runtime.createProgram(compiler.compile(rule).getAst());
            programs.put(rule, program);
            return program;
        } catch (CelValidationException | CelEvaluationException e) {
            throw new IllegalArgumentException("CEL rule does not compile: " + rule, e);
        }
    }
}
