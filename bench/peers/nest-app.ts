import 'reflect-metadata';
import type { Server } from 'node:http';
import { Controller, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { Crud, CrudController } from '@dataui/crud';
import { TypeOrmCrudService } from '@dataui/crud-typeorm';
import { IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';
import {
  Column,
  CreateDateColumn,
  DeleteDateColumn,
  Entity,
  getMetadataArgsStorage,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  type Logger,
  type Repository,
} from 'typeorm';

// NestJS 11 with @dataui/crud and TypeORM as their docs teach a generated CRUD resource:
// an entity that is also the validated DTO (class-validator, `always` so both create and
// update check it), a TypeOrmCrudService, a @Crud controller with the four routes and
// soft delete (TypeORM's delete-date column), on Nest's default Express platform. Built
// with tsc (decorator metadata, which tsx does not emit) by the peers suite.

@Entity('items')
class Item {
  @PrimaryGeneratedColumn() id!: number;

  @IsOptional({ always: true })
  @IsString({ always: true })
  @MaxLength(100, { always: true })
  @Column({ type: 'varchar', length: 100, nullable: true })
  name?: string | null;

  @IsOptional({ always: true })
  @IsString({ always: true })
  @Column({ type: 'text', nullable: true })
  description?: string | null;

  @IsOptional({ always: true })
  @IsString({ always: true })
  @MaxLength(50, { always: true })
  @Column({ type: 'varchar', length: 50, nullable: true })
  category?: string | null;

  @IsOptional({ always: true })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { always: true })
  @Column({ type: 'decimal', precision: 10, scale: 2, nullable: true })
  price?: number | null;

  @IsOptional({ always: true })
  @IsString({ always: true })
  @Column({ type: 'datetime', nullable: true })
  last_sold?: Date | null;

  @CreateDateColumn({ type: 'datetime' }) created_at!: Date;
  @UpdateDateColumn({ type: 'datetime', nullable: true }) updated_at?: Date | null;
  @Column({ type: 'boolean', default: false }) is_deleted!: boolean;
  @DeleteDateColumn({ type: 'datetime', nullable: true }) deleted_at?: Date | null;
}

@Injectable()
class ItemsService extends TypeOrmCrudService<Item> {
  constructor(@InjectRepository(Item) repo: Repository<Item>) {
    super(repo);
  }
}

@Crud({
  model: { type: Item },
  routes: { only: ['getOneBase', 'getManyBase', 'createOneBase', 'updateOneBase'] },
  query: { alwaysPaginate: true, softDelete: true, maxLimit: 1000 },
})
@Controller('items')
class ItemsController implements CrudController<Item> {
  constructor(public service: ItemsService) {}
}

/** Where the app's statements go: the bench's trace of what a server sends. */
export type QueryListener = (sql: string) => void;

class TraceLogger implements Logger {
  constructor(private readonly listener: QueryListener) {}
  logQuery(query: string): void {
    this.listener(query);
  }
  logQueryError(error: string | Error): void {
    if (process.env.BENCH_PEERS_DEBUG) console.error(error);
  }
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

/** Starts the Nest app on the engine's database (a SQLite file or a PostgreSQL URL), on 127.0.0.1. */
export async function startNest(
  engine: 'sqlite' | 'postgres',
  connection: string,
  onQuery: QueryListener,
): Promise<{ server: Server; close(): Promise<void> }> {
  const database =
    engine === 'sqlite'
      ? { type: 'better-sqlite3' as const, database: connection }
      : { type: 'postgres' as const, url: connection, poolSize: 4 };
  // Timestamps are declared as `datetime`; PostgreSQL calls the type `timestamp`.
  if (engine === 'postgres')
    for (const column of ['last_sold', 'created_at', 'updated_at', 'deleted_at'])
      Reflect.set(columnOf(column), 'type', 'timestamp');
  @Module({
    imports: [
      TypeOrmModule.forRoot({ ...database, entities: [Item], synchronize: false, logger: new TraceLogger(onQuery) }),
      TypeOrmModule.forFeature([Item]),
    ],
    providers: [ItemsService],
    controllers: [ItemsController],
  })
  class AppModule {}
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer() as Server;
  return { server, close: () => app.close() };
}

/** The column options TypeORM recorded for one of Item's properties. */
function columnOf(property: string): object {
  const column = getMetadataArgsStorage().columns.find((c) => c.target === Item && c.propertyName === property);
  if (!column) throw new Error(`Item has no column ${property}`);
  return column.options;
}
