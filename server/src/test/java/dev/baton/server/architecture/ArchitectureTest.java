package dev.baton.server.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The server's architecture as rules the build checks (docs/architecture.md). Between Maven
 * modules an upward import does not compile; these rules hold the same order inside each module,
 * package by package, and name each rule in words so a failure says which one broke.
 */
class ArchitectureTest {
    private static final String SERVER = "dev.baton.server";

    private static JavaClasses classes;

    @BeforeAll
    static void importServer() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(SERVER);
    }

    private static String pkg(String name) {
        return SERVER + "." + name + "..";
    }

    @Test
    void eachLayerUsesOnlyTheLayersBelowIt() {
        ArchRule rule = layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("assembly")
                .definedBy(SERVER)
                .layer("console")
                .definedBy(pkg("console"))
                .layer("api")
                .definedBy(pkg("api"))
                .layer("alerts")
                .definedBy(pkg("alerts"))
                .layer("registry")
                .definedBy(pkg("registry"))
                .layer("ojs")
                .definedBy(pkg("ojs"))
                .layer("broker")
                .definedBy(pkg("broker"))
                .layer("channel")
                .definedBy(pkg("channel"))
                .layer("dispatch")
                .definedBy(pkg("dispatch"))
                .layer("logs")
                .definedBy(pkg("logs"))
                .layer("cluster")
                .definedBy(pkg("cluster"))
                .layer("output")
                .definedBy(pkg("output"))
                .layer("auth")
                .definedBy(pkg("auth"))
                .layer("http")
                .definedBy(pkg("http"))
                .layer("store")
                .definedBy(pkg("store"), pkg("blob"), pkg("token"))
                .layer("core")
                .definedBy(pkg("config"), pkg("cache"), pkg("adapter"), pkg("schedule"), pkg("metrics"), pkg("events"))
                .whereLayer("assembly")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("console")
                .mayOnlyBeAccessedByLayers("assembly")
                .whereLayer("api")
                .mayOnlyBeAccessedByLayers("console", "assembly")
                .whereLayer("alerts")
                .mayOnlyBeAccessedByLayers("api", "console", "assembly")
                .whereLayer("registry")
                .mayOnlyBeAccessedByLayers("api", "console", "assembly")
                .whereLayer("ojs")
                .mayOnlyBeAccessedByLayers("assembly")
                // Transport A (the broker module) sits beside the api, on the channel's lifecycle.
                .whereLayer("broker")
                .mayOnlyBeAccessedByLayers("assembly")
                .whereLayer("channel")
                .mayOnlyBeAccessedByLayers("broker", "console", "assembly")
                .whereLayer("dispatch")
                .mayOnlyBeAccessedByLayers("broker", "channel", "api", "console", "assembly")
                .whereLayer("logs")
                .mayOnlyBeAccessedByLayers("dispatch", "channel", "api", "console", "assembly")
                .whereLayer("cluster")
                .mayOnlyBeAccessedByLayers("dispatch", "channel", "api", "console", "assembly")
                .whereLayer("output")
                .mayOnlyBeAccessedByLayers("logs", "dispatch", "channel", "api", "console", "assembly")
                .whereLayer("auth")
                .mayOnlyBeAccessedByLayers("broker", "logs", "channel", "registry", "ojs", "api", "console", "assembly")
                .whereLayer("http")
                .mayOnlyBeAccessedByLayers(
                        "broker", "auth", "logs", "channel", "registry", "ojs", "api", "console", "assembly")
                .whereLayer("store")
                .mayOnlyBeAccessedByLayers(
                        "broker",
                        "http",
                        "auth",
                        "output",
                        "cluster",
                        "logs",
                        "dispatch",
                        "channel",
                        "alerts",
                        "registry",
                        "ojs",
                        "api",
                        "console",
                        "assembly")
                .because("a part may use the parts below it and never one above it (docs/architecture.md)");
        rule.check(classes);
    }

    @Test
    void noTwoPackagesDependOnEachOther() {
        slices().matching(SERVER + ".(*)..")
                .should()
                .beFreeOfCycles()
                .because("a cycle between packages is a layer that cannot be read on its own")
                .check(classes);
    }

    @Test
    void theRegistryAndTheOjsDoorStandBesideTheJobEngineNotOnIt() {
        noClasses()
                .that()
                .resideInAnyPackage(pkg("registry"), pkg("ojs"))
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(pkg("dispatch"), pkg("channel"), pkg("cluster"), pkg("logs"), pkg("output"))
                .because("the OCI registry and the OJS binding share the store with Baton's jobs, not their dispatch")
                .check(classes);
        noClasses()
                .that()
                .resideInAPackage(pkg("registry"))
                .should()
                .dependOnClassesThat()
                .resideInAPackage(pkg("ojs"))
                .because("the two doors are independent")
                .check(classes);
        noClasses()
                .that()
                .resideInAPackage(pkg("ojs"))
                .should()
                .dependOnClassesThat()
                .resideInAPackage(pkg("registry"))
                .because("the two doors are independent")
                .check(classes);
    }

    @Test
    void storageKnowsNothingOfHttp() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        pkg("store"),
                        pkg("blob"),
                        pkg("token"),
                        pkg("config"),
                        pkg("cache"),
                        pkg("adapter"),
                        pkg("schedule"),
                        pkg("metrics"),
                        pkg("events"))
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.javalin..", "jakarta.servlet..", "org.eclipse.jetty..")
                .because("the store, blobs, tokens and the core are used the same way by every door")
                .check(classes);
    }

    @Test
    void theCoreDoesNoDatabaseWork() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        pkg("config"), pkg("cache"), pkg("adapter"), pkg("schedule"), pkg("metrics"), pkg("events"))
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("java.sql..", "org.jdbi..", "com.zaxxer..", "org.flywaydb..")
                .because("the core holds values and rules; the store module owns the database")
                .check(classes);
    }

    @Test
    void noStaticFieldIsMutable() {
        fields().that()
                .areStatic()
                .should()
                .beFinal()
                .because("no static mutable state (brief, style): state lives in objects wired in one place")
                .check(classes);
        fields().that()
                .areStatic()
                .should()
                .notHaveRawType(ConcurrentMap.class)
                .andShould()
                .notHaveRawType(java.util.concurrent.ConcurrentHashMap.class)
                .andShould()
                .notHaveRawType(java.util.HashMap.class)
                .andShould()
                .notHaveRawType(java.util.ArrayList.class)
                .andShould()
                .notHaveRawType(dev.baton.core.cache.DirectMappedCache.class)
                .andShould()
                .notHaveRawType("dev.baton.store.JobConfigs")
                .andShould()
                .notHaveRawType("dev.baton.store.ReportFormats")
                .because("a static cache or collection is shared mutable state between servers in one JVM")
                .check(classes);
    }
}
